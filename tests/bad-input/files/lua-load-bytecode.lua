local f = load(string.char(27) .. 'LJ\2'); f()
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

local f = loadstring(string.char(27) .. 'LJ' .. string.rep('x', 40)); f()
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

phase "p" { events = 8, job "j" { mix = { read = 1 } }, job "j" { mix = { write = 1 } } }

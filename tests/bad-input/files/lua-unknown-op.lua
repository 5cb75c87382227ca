phase "p" { events = 8, job "j" { mix = { teleport = 1 } } }

phase "p" { events = 8, job "j" { block = 0, mix = { read = 1 } } }

phase "p" { events = 8, job "j" { rate = -1, mix = { read = 1 } } }

phase "p" { events = 8, job "j" { threads = 0, mix = { read = 1 } } }

phase "p" { events = 8, job "j" { threads = 1.5, mix = { read = 1 } } }

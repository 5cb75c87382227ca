phase "p" { events = 8, job "j" { threads = 1e9, mix = { read = 1 } } }

phase "p" { events = 8, job "j" { ioprio = "rt:99", mix = { read = 1 } } }

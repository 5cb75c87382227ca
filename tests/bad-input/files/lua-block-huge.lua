phase "p" { events = 8, job "j" { block = "64G", mix = { read = 1 } } }

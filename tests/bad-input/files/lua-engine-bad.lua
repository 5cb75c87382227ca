phase "p" { events = 8, job "j" { engine = "warp", mix = { read = 1 } } }

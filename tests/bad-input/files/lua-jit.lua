jit.off()
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

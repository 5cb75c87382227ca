fileset { files = 2, size = -5 }
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

fileset { files = 1e300, size = "1M" }
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

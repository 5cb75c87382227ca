fileset { files = 2, size = "256K", sizes = { "1M" } }
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

os.exit(0)
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

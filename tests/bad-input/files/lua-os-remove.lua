os.remove('/tmp/sbio-victim')
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

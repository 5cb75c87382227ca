loadfile('/etc/passwd')
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

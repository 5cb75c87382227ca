local f = io.open('/etc/shadow', 'r'); print(f:read('*l'))
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

local f = io.open('/tmp/sbio-pwned', 'w'); f:write('x'); f:close()
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

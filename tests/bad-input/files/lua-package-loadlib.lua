package.loadlib('libc.so.6', 'system')('touch /tmp/sbio-pwned')
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

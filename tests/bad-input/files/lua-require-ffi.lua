local ffi = require('ffi'); ffi.cdef('int system(const char *);'); ffi.C.system('touch /tmp/sbio-pwned')
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

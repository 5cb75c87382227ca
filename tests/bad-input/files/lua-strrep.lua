local s = string.rep("x", 2^28)
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

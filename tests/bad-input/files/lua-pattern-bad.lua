phase "p" { events = 8, job "j" { pattern = { kind = "zipf", a = -3 }, mix = { read = 1 } } }

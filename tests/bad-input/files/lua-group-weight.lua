phase "p" { events = 8, job "j" { group = { weight = 0 }, mix = { read = 1 } } }

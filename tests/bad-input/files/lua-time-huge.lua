phase "p" { time = 1e300, job "j" { mix = { read = 1 } } }

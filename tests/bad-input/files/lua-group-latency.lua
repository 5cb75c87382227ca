phase "p" { events = 8, job "j" { group = { latency = "fast" }, mix = { read = 1 } } }

phase "p" { events = 8, job "j" { event = true } }

phase "p[2J" { events = 8, job "j]0;x" { colour = 1 } }

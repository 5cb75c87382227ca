phase "p" { events = 8 }

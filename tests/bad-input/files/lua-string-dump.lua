local s = string.dump(function() end)
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

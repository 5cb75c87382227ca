getmetatable('').__index.execute = 1; ('x'):rep(2); local e = (''):execute()
phase "p" { events = 8, job "j" { mix = { read = 1 } } }

local x = 0 for i = 1, 1e15 do x = x + i end

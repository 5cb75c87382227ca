local t = {} for i = 1, 1e10 do t[#t + 1] = {i, i, i, i} end

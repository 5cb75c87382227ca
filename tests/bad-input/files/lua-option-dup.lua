option("bs", "4k", "a")
option("bs", "8k", "b")

option("Bad Name", 1, "x")

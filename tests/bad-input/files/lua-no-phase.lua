fileset { files = 2, size = "1M" }

phase "p" { events = 8, job "j" { engine = "io_uring", iodepth = 1e9, mix = { read = 1 } } }

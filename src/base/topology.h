/* This process's place in a run of several processes (MPI ranks, see mpi.h): which rank of
 * how many, on how many hosts, and whether it leads its host (the one process that changes
 * the host's device settings and drops its caches). Not an option: main.c learns it from
 * MPI once and hands it to the commands. */
#ifndef SBIO_TOPOLOGY_H
#define SBIO_TOPOLOGY_H

#include <stdbool.h>

struct sbio_topology {
    unsigned rank, nranks, nhosts;
    bool host_leader;
};

/* A process alone: rank 0 of 1, on 1 host, its leader. */
#define SBIO_TOPOLOGY_ALONE ((struct sbio_topology){.nranks = 1, .nhosts = 1, .host_leader = true})

#endif

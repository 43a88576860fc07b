#!/usr/bin/python3
"""Writes the hand-made OTF2 archive of this folder (traces.otf2, traces.def,
traces/) with Debian's python3-otf2 writer (the OTF2 project's own Python
bindings over libotf2): 3 MPI ranks, one thread each, whose MPI wait states
(late sender, late receiver, waits at collectives) are known by hand; the
README's table gives them.  Times below are microseconds from the start of
the run; the timer counts nanoseconds (resolution 1e9).

usage: /usr/bin/python3 make.py [OUTDIR]   (default: this script's folder)
The archive is written to a temporary folder and moved into OUTDIR, so an
old archive there is replaced."""
import os, shutil, sys, tempfile
import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationGroupType, LocationType, Paradigm,
                        RegionRole)

T0 = 1_000_000_000  # ticks (ns) of t = 0; the writer makes the first timestamp the global offset


def tick(us):
    return T0 + round(us * 1000)


# Each rank: its events in order: (us, kind, args).  "E"/"L" enter/leave a
# region; "S" MpiSend (peer, tag); "R" MpiRecv (peer, tag); "IR" MpiIrecvRequest;
# "I" MpiIrecv (peer, tag); "CB"/"CE" MpiCollectiveBegin/End (op).
# The message and collective events sit inside their MPI call, as Score-P
# writes them; a message event's time is not its call's start or end, so a
# tool that used the event's time instead of its call's would be found out.
RANKS = [
    [  # rank 0
        (0, "E", "main"),
        (2, "E", "MPI_Init"), (10, "L", "MPI_Init"),
        (10, "E", "compute"), (50, "L", "compute"),
        # message 0 -> 1 tag 1: rank 1 waits for it in MPI_Recv from 10 us (late sender 40 us)
        (50, "E", "MPI_Send"), (51, "S", (1, 1)), (55, "L", "MPI_Send"),
        # message 2 -> 0 tag 2: posted at 80 us while rank 2 sits in MPI_Ssend since 30 us
        # (late receiver 50 us on rank 2)
        (80, "E", "MPI_Recv"), (84, "R", (2, 2)), (85, "L", "MPI_Recv"),
        (100, "E", "MPI_Allreduce"), (100, "CB", None), (130, "CE", CollectiveOp.ALLREDUCE),
        (130, "L", "MPI_Allreduce"),
        # message 0 -> 1 tag 3 sent at 180 us, received on rank 1 in [170, 175): a clock
        # condition violation (received before sent); late sender clamped to 5 us
        (180, "E", "MPI_Send"), (181, "S", (1, 3)), (182, "L", "MPI_Send"),
        (200, "E", "MPI_Barrier"), (200, "CB", None), (210, "CE", CollectiveOp.BARRIER),
        (210, "L", "MPI_Barrier"),
        (240, "E", "MPI_Bcast"), (240, "CB", None), (250, "CE", CollectiveOp.BCAST),
        (250, "L", "MPI_Bcast"),
        # a barrier inside MPI_Finalize on rank 0 only: a collective call no other rank
        # matches (no wait), and not an outermost MPI region (no MPI time of its own)
        (290, "E", "MPI_Finalize"),
        (291, "E", "MPI_Barrier"), (291, "CB", None), (297, "CE", CollectiveOp.BARRIER),
        (297, "L", "MPI_Barrier"),
        (298, "L", "MPI_Finalize"),
        (300, "L", "main"),
    ],
    [  # rank 1
        (0, "E", "main"),
        (1, "E", "MPI_Init"), (10, "L", "MPI_Init"),
        (10, "E", "MPI_Recv"), (59, "R", (0, 1)), (60, "L", "MPI_Recv"),
        (60, "E", "compute"), (120, "L", "compute"),
        (120, "E", "MPI_Allreduce"), (120, "CB", None), (130, "CE", CollectiveOp.ALLREDUCE),
        (130, "L", "MPI_Allreduce"),
        # message 1 -> 2 tag 4, received by rank 2 in MPI_Wait from 140 us (late sender 10 us)
        (150, "E", "MPI_Send"), (150.5, "S", (2, 4)), (152, "L", "MPI_Send"),
        (170, "E", "MPI_Recv"), (174, "R", (0, 3)), (175, "L", "MPI_Recv"),
        (201, "E", "MPI_Barrier"), (201, "CB", None), (210, "CE", CollectiveOp.BARRIER),
        (210, "L", "MPI_Barrier"),
        # message 1 -> 2 tag 5: the send returned (222 us) before rank 2 posted the
        # receive (230 us): no late receiver, no late sender
        (220, "E", "MPI_Send"), (221, "S", (2, 5)), (222, "L", "MPI_Send"),
        # rank 1 leaves the broadcast at 243 us, before rank 2 arrives (245 us): its
        # wait is clamped to its own call
        (241, "E", "MPI_Bcast"), (241, "CB", None), (243, "CE", CollectiveOp.BCAST),
        (243, "L", "MPI_Bcast"),
        (290, "E", "MPI_Finalize"), (297, "L", "MPI_Finalize"),
        (300, "L", "main"),
    ],
    [  # rank 2
        (0, "E", "main"),
        (3, "E", "MPI_Init"), (10, "L", "MPI_Init"),
        (30, "E", "MPI_Ssend"), (31, "S", (0, 2)), (82, "L", "MPI_Ssend"),
        (82, "E", "compute"), (110, "L", "compute"),
        (110, "E", "MPI_Allreduce"), (110, "CB", None), (130, "CE", CollectiveOp.ALLREDUCE),
        (130, "L", "MPI_Allreduce"),
        (135, "E", "MPI_Irecv"), (135.5, "IR", 7), (136, "L", "MPI_Irecv"),
        (140, "E", "MPI_Wait"), (154, "I", (1, 4, 7)), (155, "L", "MPI_Wait"),
        (208, "E", "MPI_Barrier"), (208, "CB", None), (210, "CE", CollectiveOp.BARRIER),
        (210, "L", "MPI_Barrier"),
        (230, "E", "MPI_Recv"), (234, "R", (1, 5)), (235, "L", "MPI_Recv"),
        (245, "E", "MPI_Bcast"), (245, "CB", None), (250, "CE", CollectiveOp.BCAST),
        (250, "L", "MPI_Bcast"),
        (290, "E", "MPI_Finalize"), (299, "L", "MPI_Finalize"),
        (300, "L", "main"),
    ],
]

P2P = {"MPI_Send", "MPI_Ssend", "MPI_Recv", "MPI_Irecv", "MPI_Wait"}
COLL = {"MPI_Allreduce", "MPI_Barrier", "MPI_Bcast"}


def write(path):
    with otf2.writer.open(path, timer_resolution=1_000_000_000) as trace:
        d = trace.definitions
        regions = {}
        for rk in RANKS:
            for us, kind, arg in rk:
                if kind == "E" and arg not in regions:
                    if arg in P2P:
                        role, par = RegionRole.POINT2POINT, Paradigm.MPI
                    elif arg in COLL:
                        role, par = RegionRole.COLL_ONE2ALL if arg == "MPI_Bcast" else \
                            RegionRole.BARRIER if arg == "MPI_Barrier" else RegionRole.COLL_ALL2ALL, Paradigm.MPI
                    elif arg.startswith("MPI_"):
                        role, par = RegionRole.FUNCTION, Paradigm.MPI
                    else:
                        role, par = RegionRole.FUNCTION, Paradigm.USER
                    regions[arg] = d.region(arg, region_role=role, paradigm=par)
        node = d.system_tree_node("node")
        groups = [d.location_group("MPI Rank %d" % r, location_group_type=LocationGroupType.PROCESS,
                       system_tree_parent=node) for r in range(len(RANKS))]
        locs = [d.location("Master thread", type=LocationType.CPU_THREAD, group=g) for g in groups]
        # the MPI locations in MPI_COMM_WORLD rank order, and the world's rank group
        d.group("", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=locs)
        world = d.group("", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                members=list(range(len(RANKS))))
        comm = d.comm("MPI_COMM_WORLD", group=world)
        for r, rk in enumerate(RANKS):
            w = trace.event_writer_from_location(locs[r])
            for us, kind, arg in rk:
                t = tick(us)
                if kind == "E":
                    w.enter(t, regions[arg])
                elif kind == "L":
                    w.leave(t, regions[arg])
                elif kind == "S":
                    w.mpi_send(t, arg[0], comm, arg[1], 1024)
                elif kind == "R":
                    w.mpi_recv(t, arg[0], comm, arg[1], 1024)
                elif kind == "IR":
                    w.mpi_irecv_request(t, arg)
                elif kind == "I":
                    w.mpi_irecv(t, arg[0], comm, arg[1], 1024, arg[2])
                elif kind == "CB":
                    w.mpi_collective_begin(t)
                elif kind == "CE":
                    root = 0 if arg == CollectiveOp.BCAST else otf2.Undefined.UINT32.value
                    w.mpi_collective_end(t, arg, comm, root, 8, 8)
        # the writer stamps the archive with the wall-clock time of its first event;
        # a fixed one (2026-01-01) makes the archive the same bytes on every run
        trace._realtime_timestamp = 1767225600


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    tmp = tempfile.mkdtemp()
    try:
        write(os.path.join(tmp, "a"))
        for f in ("traces.otf2", "traces.def", "traces"):
            dst = os.path.join(out, f)
            if os.path.isdir(dst):
                shutil.rmtree(dst)
            elif os.path.exists(dst):
                os.remove(dst)
            shutil.move(os.path.join(tmp, "a", f), dst)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()

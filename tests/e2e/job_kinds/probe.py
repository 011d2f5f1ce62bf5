#!/usr/bin/env python3
"""What a training program sees, for the job-kind end-to-end tests.

probe.py [--rendezvous] [--wait FILE] NAME_OR_PREFIX*...

Prints "ENV NAME=VALUE" for each environment variable named (a trailing *
matches a prefix), sorted. With --rendezvous it meets its peers the way
torch.distributed's TCP store does: rank 0 (RANK) listens on
MASTER_ADDR:MASTER_PORT and waits for WORLD_SIZE-1 peers, every other rank
connects there; each prints "RENDEZVOUS rank=R world=W peers=0,1,...". With
--wait it then waits until FILE exists (the test's release) and exits 0.
Standard library only: no torch needed.
"""
import os
import socket
import sys
import time


def print_env(patterns):
    for name in sorted(os.environ):
        for p in patterns:
            if name == p or (p.endswith("*") and name.startswith(p[:-1])):
                print(f"ENV {name}={os.environ[name]}", flush=True)
                break


def rendezvous():
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    addr = os.environ["MASTER_ADDR"]
    port = int(os.environ["MASTER_PORT"])
    if rank == 0:
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind((addr, port))
        srv.listen(world)
        srv.settimeout(60)
        peers, conns = [0], []
        while len(peers) < world:
            c, _ = srv.accept()
            peers.append(int(c.makefile().readline()))
            conns.append(c)
        line = ",".join(str(p) for p in sorted(peers))
        for c in conns:
            c.sendall((line + "\n").encode())
            c.close()
        srv.close()
    else:
        deadline = time.time() + 60
        while True:
            try:
                c = socket.create_connection((addr, port), timeout=5)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        c.sendall(f"{rank}\n".encode())
        line = c.makefile().readline().strip()
        c.close()
    print(f"RENDEZVOUS rank={rank} world={world} peers={line}", flush=True)


def main(argv):
    wait = None
    meet = False
    patterns = []
    i = 0
    while i < len(argv):
        if argv[i] == "--wait":
            wait = argv[i + 1]
            i += 2
            continue
        if argv[i] == "--rendezvous":
            meet = True
        else:
            patterns.append(argv[i])
        i += 1
    print_env(patterns)
    if meet:
        rendezvous()
    while wait and not os.path.exists(wait):
        time.sleep(0.1)
    print("DONE", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""work.py: a small CPU-bound Python program for sampled-profile fixtures.

Three worker functions with distinct costs; squares is called from two
places (run and mixed) and fib is recursive.
Run: python3 work.py [scale]
"""
import sys


def squares(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def text(n):
    parts = []
    for i in range(n):
        parts.append(str(i))
    return len(",".join(parts))


def mixed(n):
    return squares(n // 2) + text(n // 4)


def run(scale):
    total = 0
    for _ in range(int(10 * scale)):
        total += squares(100000)
        total += fib(21)
        total += mixed(100000)
    return total


if __name__ == "__main__":
    print(run(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))

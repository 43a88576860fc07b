// gocpu writes a Go runtime CPU profile (runtime/pprof) to the file named by
// its argument: a foreign pprof profile for tracefold's tests.  Standard
// library only.  Functions a and b are small enough to be inlined, so the
// profile has locations with several lines (inlined frames).
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

var sink int

//go:noinline
func spin(d time.Duration) {
	t := time.Now()
	for time.Since(t) < d {
		for i := 0; i < 1000; i++ {
			sink += i * i
		}
	}
}

func a() { spin(200 * time.Millisecond) }
func b() { spin(120 * time.Millisecond) }

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	a()
	b()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		panic(err)
	}
}

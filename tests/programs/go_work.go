// Two goroutines computing in main.leafWork under main.middle, for
// checking a Go program's stacks (tests/e2e/test_go.py).  Prints the
// process's CPU time, its own truth:  cpu_seconds=C
package main

import (
	"fmt"
	"sync"
	"syscall"
	"time"
)

//go:noinline
func leafWork(n int) float64 {
	s := 0.0
	for i := 0; i < n; i++ {
		s += float64(i%7) * 1.0001
	}
	return s
}

// middle computes for CPU seconds of the process's CPU clock.
//go:noinline
func middle(seconds float64) float64 {
	s := 0.0
	for cpuSeconds() < seconds {
		s += leafWork(20000)
	}
	return s
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0.0
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := middle(0.8)
			mu.Lock()
			total += v
			mu.Unlock()
		}()
	}
	wg.Wait()
	time.Sleep(10 * time.Millisecond)
	fmt.Printf("go_work: sum %v cpu_seconds=%.3f\n", total > 0, cpuSeconds())
}

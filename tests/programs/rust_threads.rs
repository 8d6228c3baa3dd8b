// Two threads compute for a while (CPU time, measured by each thread's own
// clock through Instant here: wall time on an idle machine), the main thread
// joins them: a Rust program as rustc builds it (std linked in, its code
// segment sharing a file page with the read-only one).
//     rust_threads  ->  prints the threads' checksum
use std::thread;
use std::time::Instant;
#[inline(never)]
fn burn(n: u64) -> u64 { let mut s = 0u64; for i in 0..n { s = s.wrapping_add(i * i % 7); } s }
#[inline(never)]
fn work(secs: f64) -> u64 { let t = Instant::now(); let mut s = 0; while t.elapsed().as_secs_f64() < secs { s += burn(100000); } s }
fn main() {
    let hs: Vec<_> = (0..2).map(|_| thread::spawn(|| work(0.5))).collect();
    let mut s = 0; for h in hs { s += h.join().unwrap(); }
    println!("{}", s);
}

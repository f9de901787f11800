//! Ground truth for futex-parked waits in Rust: one program, one case per argument.
//!
//! Hand-offs (`std-condvar`, `mpsc`, `parking-lot`, `crossbeam`): threads A and B pass one token
//! back and forth; each round A runs line a (FX_LINE_A units of a dependent multiply chain), gives
//! B the token and waits for it back; B runs line b (FX_LINE_B units) and gives it back. One
//! serial critical path. `contended`: two threads each run line b outside a std `Mutex`, then line
//! a inside it; the lock is the bottleneck, so line a is the whole story and line b counts for
//! nothing until line a is faster than it.
//!
//! Runs FX_SECONDS (default 8) of real time; FX_A_SHARE and FX_B_SHARE (0-1, default 1) keep that
//! share of each line's work, to measure the true effect natively. Prints
//! "elapsed_ns N visits V". Every line's work is marked by a comment the benchmark finds.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

const UNIT: f64 = 10000.0;

fn env(name: &str, fallback: f64) -> f64 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(fallback)
}

// The busy work: a dependent multiply chain, one multiply per step. An xor, not an add, joins
// the step's index: LLVM folds `v * k + i` eight steps into one multiply (a closed form), which
// would make the work an eighth of what it says.
// Each loop is written on one line, so every instruction of it (the loop's own counting too) is
// the marked line's: what a native run removes is what the profile's line covers.
#[inline(never)]
#[rustfmt::skip]
fn line_a(v: &mut u64, n: u64) {
    for i in 0..n { *v = v.wrapping_mul(2654435761) ^ i; } // line a
}

#[inline(never)]
#[rustfmt::skip]
fn line_b(v: &mut u64, n: u64) {
    for i in 0..n { *v = v.wrapping_mul(2654435761) ^ i; } // line b
}

/// One way to pass the token: `give(to)` hands it to thread `to` (0: A, 1: B), `take(me)` waits
/// for it.
trait Baton: Send + Sync {
    fn give(&self, to: usize);
    fn take(&self, me: usize);
}

struct StdCondvar(Mutex<usize>, Condvar);
impl Baton for StdCondvar {
    fn give(&self, to: usize) {
        *self.0.lock().unwrap() = to;
        self.1.notify_one();
    }
    fn take(&self, me: usize) {
        let mut whose = self.0.lock().unwrap();
        while *whose != me {
            whose = self.1.wait(whose).unwrap();
        }
    }
}

struct ParkingLot(parking_lot::Mutex<usize>, parking_lot::Condvar);
impl Baton for ParkingLot {
    fn give(&self, to: usize) {
        *self.0.lock() = to;
        self.1.notify_one();
    }
    fn take(&self, me: usize) {
        let mut whose = self.0.lock();
        while *whose != me {
            self.1.wait(&mut whose);
        }
    }
}

struct Channels<S, R> {
    to: [S; 2],
    from: [Mutex<R>; 2],
}
impl Baton for Channels<mpsc::Sender<()>, mpsc::Receiver<()>> {
    fn give(&self, to: usize) {
        self.to[to].send(()).unwrap();
    }
    fn take(&self, me: usize) {
        self.from[me].lock().unwrap().recv().unwrap();
    }
}
impl Baton for Channels<crossbeam_channel::Sender<()>, crossbeam_channel::Receiver<()>> {
    fn give(&self, to: usize) {
        self.to[to].send(()).unwrap();
    }
    fn take(&self, me: usize) {
        self.from[me].lock().unwrap().recv().unwrap();
    }
}

fn baton(case: &str) -> Arc<dyn Baton> {
    match case {
        "std-condvar" => Arc::new(StdCondvar(Mutex::new(0), Condvar::new())),
        "parking-lot" => Arc::new(ParkingLot(parking_lot::Mutex::new(0), parking_lot::Condvar::new())),
        "mpsc" => {
            let (a_tx, a_rx) = mpsc::channel();
            let (b_tx, b_rx) = mpsc::channel();
            Arc::new(Channels { to: [a_tx, b_tx], from: [Mutex::new(a_rx), Mutex::new(b_rx)] })
        }
        "crossbeam" => {
            let (a_tx, a_rx) = crossbeam_channel::bounded(1);
            let (b_tx, b_rx) = crossbeam_channel::bounded(1);
            Arc::new(Channels { to: [a_tx, b_tx], from: [Mutex::new(a_rx), Mutex::new(b_rx)] })
        }
        _ => {
            eprintln!("usage: futex-cases std-condvar|mpsc|parking-lot|crossbeam|contended");
            std::process::exit(2);
        }
    }
}

fn handoff(case: &str, a: u64, b: u64, budget: Duration) -> u64 {
    let baton = baton(case);
    let stopping = Arc::new(AtomicBool::new(false));
    let (bt, stop) = (baton.clone(), stopping.clone());
    let other = std::thread::spawn(move || {
        let mut v = 7u64;
        loop {
            bt.take(1);
            if stop.load(Ordering::Relaxed) {
                break;
            }
            line_b(&mut v, b);
            bt.give(0);
        }
        v
    });
    let start = Instant::now();
    let (mut v, mut visits) = (3u64, 0u64);
    while start.elapsed() < budget {
        line_a(&mut v, a);
        baton.give(1);
        baton.take(0);
        coz::progress!("round");
        visits += 1;
    }
    stopping.store(true, Ordering::Relaxed);
    baton.give(1);
    std::hint::black_box(other.join().unwrap() ^ v);
    visits
}

fn contended(a: u64, b: u64, budget: Duration) -> u64 {
    let lock = Arc::new(Mutex::new(0u64));
    let start = Instant::now();
    let workers: Vec<_> = (0..2)
        .map(|t| {
            let lock = lock.clone();
            std::thread::spawn(move || {
                let (mut v, mut visits) = (t as u64 + 3, 0u64);
                while start.elapsed() < budget {
                    line_b(&mut v, b);
                    let mut shared = lock.lock().unwrap();
                    line_a(&mut shared, a);
                    drop(shared);
                    coz::progress!("round");
                    visits += 1;
                }
                std::hint::black_box(v);
                visits
            })
        })
        .collect();
    workers.into_iter().map(|w| w.join().unwrap()).sum()
}

fn main() {
    let case = std::env::args().nth(1).unwrap_or_default();
    let a = (env("FX_LINE_A", 60.0) * UNIT * env("FX_A_SHARE", 1.0)).round() as u64;
    let b = (env("FX_LINE_B", 40.0) * UNIT * env("FX_B_SHARE", 1.0)).round() as u64;
    let budget = Duration::from_secs_f64(env("FX_SECONDS", 8.0));
    let start = Instant::now();
    let visits = if case == "contended" { contended(a, b, budget) } else { handoff(&case, a, b, budget) };
    println!("elapsed_ns {} visits {}", start.elapsed().as_nanos(), visits);
}

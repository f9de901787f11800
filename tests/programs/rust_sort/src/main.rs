// Two threads whose time goes into the standard library's sort, called from one line of this
// file (marked sort_call), with a `coz` crate progress point per sorted round. Runs for the
// milliseconds given (default 2000) and prints "done".
use std::thread;
use std::time::{Duration, Instant};

fn next_random(state: &mut u32) -> u32 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    x
}

#[inline(never)]
fn sort_round(v: &mut [u32], state: &mut u32) -> u32 {
    for x in v.iter_mut() {
        *x = next_random(state);
    }
    v.sort_unstable(); /* LINE:sort_call */
    v[v.len() / 2]
}

fn worker(seed: u32, end: Instant) -> u32 {
    let mut v = vec![0u32; 1000];
    let mut state = seed;
    let mut sum = 0u32;
    while Instant::now() < end {
        sum = sum.wrapping_add(sort_round(&mut v, &mut state));
        coz::progress!("sorted");
    }
    sum
}

fn main() {
    coz::thread_init();
    let ms: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let end = Instant::now() + Duration::from_millis(ms);
    let workers: Vec<_> = [2463534242u32, 88675123u32]
        .iter()
        .map(|&seed| {
            thread::spawn(move || {
                coz::thread_init();
                worker(seed, end)
            })
        })
        .collect();
    let result = workers.into_iter().fold(0u32, |acc, w| acc ^ w.join().unwrap());
    println!("done {}", result);
}

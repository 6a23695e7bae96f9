//! The embedding benchmark's driver (`benches/embed.sh`): embed the lines of a file with the
//! `minilm` backend and print the throughput.
//!
//!     cargo run --release --example embed -- MODEL TEXTS.txt [--repeat N] [--vectors OUT.f32]
//!
//! MODEL is a model directory or a Hugging Face id; TEXTS.txt holds one text per line. The
//! model is loaded (and warmed up on the first texts) before the clock starts; each of the
//! N rounds (default 3) embeds every line in one call. Prints one line per round (wall and
//! CPU time: on a busy machine texts per CPU-second says more) and a last line
//! `texts_per_second=…` (the best round). `--vectors` writes the vectors as little-endian
//! f32, one row per line.
//!
//! `GOLDGATE_MINILM_SIMD` chooses the forward pass: `auto` (the default: the fastest this
//! CPU runs), `avx512`, `avx2`, `neon` or `scalar`; one this CPU lacks is an error.

use std::io::Write;
use std::time::Instant;

use goldgate_core::embed::Embedder;
use goldgate_embed::minilm::{MiniLm, Simd};

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut model, mut texts, mut repeat, mut out) = (None, None, 3usize, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--repeat takes a number")?
            }
            "--vectors" => out = Some(args.next().ok_or("--vectors takes a file")?),
            _ if model.is_none() => model = Some(arg),
            _ if texts.is_none() => texts = Some(arg),
            _ => return Err(format!("unexpected argument {arg}")),
        }
    }
    let usage = "usage: embed MODEL TEXTS.txt [--repeat N] [--vectors OUT.f32]";
    let (model, texts) = (model.ok_or(usage)?, texts.ok_or(usage)?);
    let text = std::fs::read_to_string(&texts).map_err(|e| format!("{texts}: {e}"))?;
    let lines: Vec<&str> = text.lines().collect();

    let simd = std::env::var("GOLDGATE_MINILM_SIMD").unwrap_or_else(|_| "auto".into());
    let simd = Simd::from_name(&simd).map_err(|e| format!("GOLDGATE_MINILM_SIMD: {e}"))?;
    let started = Instant::now();
    let minilm = MiniLm::open(&model)
        .and_then(|m| m.with_simd(simd))
        .map_err(|e| e.to_string())?;
    let opened = started.elapsed();
    let warm = &lines[..lines.len().min(64)];
    minilm.embed(warm).map_err(|e| e.to_string())?;
    eprintln!(
        "open {:.1} ms, load and warm-up {:.1} ms, {} texts, {} threads, {} forward pass",
        opened.as_secs_f64() * 1e3,
        (started.elapsed() - opened).as_secs_f64() * 1e3,
        lines.len(),
        rayon::current_num_threads(),
        minilm.loaded_simd().map_err(|e| e.to_string())?
    );
    let mut best = 0f64;
    let mut vectors = Vec::new();
    for round in 1..=repeat.max(1) {
        let (clock, cpu) = (Instant::now(), cpu_seconds());
        vectors = minilm.embed(&lines).map_err(|e| e.to_string())?;
        let (secs, cpu) = (clock.elapsed().as_secs_f64(), cpu_seconds() - cpu);
        let rate = lines.len() as f64 / secs;
        best = best.max(rate);
        eprintln!(
            "round {round}: {secs:.3} s, {rate:.1} texts/s; {cpu:.3} CPU-s, {:.1} texts per CPU-second",
            lines.len() as f64 / cpu
        );
    }
    if let Some(out) = out {
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(&out).map_err(|e| format!("{out}: {e}"))?,
        );
        for v in &vectors {
            for x in v {
                file.write_all(&x.to_le_bytes())
                    .map_err(|e| format!("{out}: {e}"))?;
            }
        }
        file.flush().map_err(|e| format!("{out}: {e}"))?;
    }
    println!("simd={}", minilm.simd());
    println!("texts_per_second={best:.1}");
    Ok(())
}

/// CPU time of the process so far (user and system, all threads).
#[cfg(unix)]
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

#[cfg(not(unix))]
fn cpu_seconds() -> f64 {
    f64::NAN
}

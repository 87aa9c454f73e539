//! A slow, obviously correct GF(2)[x] arithmetic for tests: one bit at a time.

#[derive(Debug, Clone)]
pub(crate) struct Poly(Vec<bool>);

impl PartialEq for Poly {
    fn eq(&self, other: &Self) -> bool {
        self.trimmed() == other.trimmed()
    }
}

impl Poly {
    fn trimmed(&self) -> &[bool] {
        let end = self.0.iter().rposition(|&b| b).map_or(0, |i| i + 1);
        &self.0[..end]
    }

    pub(crate) fn from_words(w: &[u64]) -> Poly {
        Poly(
            (0..64 * w.len())
                .map(|i| (w[i / 64] >> (i % 64)) & 1 == 1)
                .collect(),
        )
    }

    pub(crate) fn words(&self, n: usize) -> Vec<u64> {
        let mut out = vec![0u64; n];
        for (i, &b) in self.trimmed().iter().enumerate() {
            if b {
                out[i / 64] |= 1 << (i % 64);
            }
        }
        out
    }

    pub(crate) fn modulus(m: usize, taps: &[usize]) -> Poly {
        let mut v = vec![false; m + 1];
        v[m] = true;
        v[0] = true;
        for &t in taps {
            v[t] = true;
        }
        Poly(v)
    }

    pub(crate) fn add(&self, o: &Poly) -> Poly {
        let n = self.0.len().max(o.0.len());
        Poly(
            (0..n)
                .map(|i| {
                    self.0.get(i).copied().unwrap_or(false) ^ o.0.get(i).copied().unwrap_or(false)
                })
                .collect(),
        )
    }

    pub(crate) fn mul(&self, o: &Poly) -> Poly {
        let mut v = vec![false; self.0.len() + o.0.len()];
        for (i, &a) in self.0.iter().enumerate() {
            for (j, &b) in o.0.iter().enumerate() {
                v[i + j] ^= a & b;
            }
        }
        Poly(v)
    }

    pub(crate) fn rem(&self, f: &Poly) -> Poly {
        let f = f.trimmed().to_vec();
        let deg = f.len() - 1;
        let mut v = self.trimmed().to_vec();
        while v.len() > deg {
            let shift = v.len() - 1 - deg;
            for (k, &b) in f.iter().enumerate() {
                v[shift + k] ^= b;
            }
            while v.last() == Some(&false) {
                v.pop();
            }
        }
        Poly(v)
    }
}

//! C ABI for a2a-core. Placeholder until the C ABI work lands.

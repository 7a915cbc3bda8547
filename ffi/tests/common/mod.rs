//! Helpers shared by the ffi integration tests: views and buffers read back as Rust values,
//! header arrays built from pairs, and a machine config built with plain http allowed.
#![allow(dead_code)]

use std::ptr::null_mut;

use a2a_core::buffer::{a2a_buffer, a2a_buffer_bytes};
use a2a_core::header::a2a_header;
use a2a_core::machine_config::*;
use a2a_core::result::a2a_result;
use a2a_core::view::a2a_str;

/// The text of view `v`, `None` when absent.
pub fn view_string(v: a2a_str) -> Option<String> {
    if v.ptr.is_null() {
        return None;
    }
    let b = unsafe { std::slice::from_raw_parts(v.ptr.cast::<u8>(), v.len) };
    Some(String::from_utf8(b.to_vec()).unwrap())
}

/// A copy of everything buffer `b` holds.
pub fn buffer_bytes(b: *const a2a_buffer) -> Vec<u8> {
    let v = a2a_buffer_bytes(b);
    unsafe { std::slice::from_raw_parts(v.ptr, v.len) }.to_vec()
}

/// C header views of `pairs` (valid while `pairs` lives).
pub fn headers<N: AsRef<str>, V: AsRef<str>>(pairs: &[(N, V)]) -> Vec<a2a_header> {
    pairs
        .iter()
        .map(|(n, v)| {
            let (n, v) = (n.as_ref(), v.as_ref());
            a2a_header {
                name: n.as_ptr().cast(),
                name_len: n.len(),
                value: v.as_ptr().cast(),
                value_len: v.len(),
            }
        })
        .collect()
}

/// The interface to insist on, as the old two-value setter took it: the version, then the
/// binding, each through `a2a_client_config_builder_set`; the first refusal is returned.
pub fn set_interface(b: *mut a2a_client_config_builder, version: u32, binding: u32) -> a2a_result {
    let r = a2a_client_config_builder_set(
        b,
        a2a_client_option::InterfaceVersion as u32,
        u64::from(version),
    );
    if r != a2a_result::A2A_OK {
        return r;
    }
    a2a_client_config_builder_set(
        b,
        a2a_client_option::InterfaceBinding as u32,
        u64::from(binding),
    )
}

/// A machine config with plain http allowed and whatever `f` sets on the builder.
pub fn machine_config(f: impl FnOnce(*mut a2a_client_config_builder)) -> *mut a2a_machine_config {
    let builder = a2a_client_config_builder_new();
    assert_eq!(
        a2a_client_config_builder_set(builder, a2a_client_option::AllowHttp as u32, 1),
        a2a_result::A2A_OK
    );
    f(builder);
    let mut cfg = null_mut();
    assert_eq!(
        a2a_client_config_builder_build(builder, &mut cfg),
        a2a_result::A2A_OK
    );
    a2a_client_config_builder_free(builder);
    cfg
}

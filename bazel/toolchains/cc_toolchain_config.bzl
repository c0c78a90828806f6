"""A C toolchain for a Debian cross compiler (gcc-<triple>, Debian bookworm's gcc 12).

The Debian packages gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf and
gcc-arm-linux-gnueabi install /usr/bin/<triple>-gcc with the target's libc under
/usr/<triple>; nothing is downloaded.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
)

_COMPILE = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.linkstamp_compile,
]

_LINK = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flags(actions, flags):
    return flag_set(actions = actions, flag_groups = [flag_group(flags = flags)]) if flags else None

def _impl(ctx):
    triple = ctx.attr.triple
    gcc_version = ctx.attr.gcc_version
    tools = ["ar", "cpp", "gcc", "gcov", "ld", "nm", "objcopy", "objdump", "strip"]
    tool_paths = [tool_path(name = t, path = "/usr/bin/%s-%s" % (triple, t)) for t in tools]

    arch_flags = ctx.attr.arch_flags
    features = [
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [s for s in [
                _flags(_COMPILE, arch_flags + [
                    "-fno-canonical-system-headers",
                    "-Wno-builtin-macro-redefined",
                    "-D__DATE__=\"redacted\"",
                    "-D__TIMESTAMP__=\"redacted\"",
                    "-D__TIME__=\"redacted\"",
                ]),
            ] if s],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [s for s in [
                _flags(_LINK, arch_flags + ctx.attr.link_flags + ["-lm", "-lpthread"]),
            ] if s],
        ),
        feature(
            name = "opt",
            flag_sets = [
                _flags(_COMPILE, ["-O2", "-DNDEBUG", "-ffunction-sections", "-fdata-sections"]),
                _flags(_LINK, ["-Wl,--gc-sections", "-s"]),
            ],
        ),
        feature(
            name = "dbg",
            flag_sets = [_flags(_COMPILE, ["-O0", "-g"])],
        ),
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = not ctx.attr.static),
    ]

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/lib/gcc-cross/%s/%s/include" % (triple, gcc_version),
            "/usr/lib/gcc-cross/%s/%s/include-fixed" % (triple, gcc_version),
            "/usr/%s/include" % triple,
            "/usr/include",
        ],
        toolchain_identifier = "debian-" + ctx.attr.name,
        host_system_name = "x86_64-linux-gnu",
        target_system_name = triple,
        target_cpu = ctx.attr.cpu,
        target_libc = "glibc",
        compiler = "gcc",
        abi_version = "gcc",
        abi_libc_version = "glibc",
        tool_paths = tool_paths,
    )

debian_cross_cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {
        "triple": attr.string(mandatory = True),
        "cpu": attr.string(mandatory = True),
        "gcc_version": attr.string(default = "12"),
        "arch_flags": attr.string_list(default = []),
        "link_flags": attr.string_list(default = []),
        "static": attr.bool(default = False),
    },
    provides = [CcToolchainConfigInfo],
)

"""What tests/unit/test_profile.py and tests/integration/test_profile.py share."""

# Stacks as the profilers write them: a C server (open62541 with OpenSSL), the kernel under a
# send, a Go server, a JVM, CPython (py-spy's "function (file:line)")
STACKS = """\
main;UA_Server_run;processMSG;decryptAndVerifyChunk;EVP_DecryptUpdate;aesni_cbc_encrypt 40
main;UA_Server_run;processMSG;UA_decodeBinaryInternal;decodeBinaryStructure;__memmove_avx_unaligned_erms 20
main;UA_Server_run;processMSG;ReadWithNodeMaybeAsync;zipNsGetNode 15
main;UA_Server_run;UA_EventLoopPOSIX_run;epoll_wait;entry_SYSCALL_64_[k];do_epoll_wait_[k] 10
main;UA_Server_run;sendSymmetricChunk;send;__x64_sys_sendto_[k];tcp_sendmsg_[k] 5
runtime.goexit;runtime.gcBgMarkWorker;runtime.scanobject 4
main;malloc;_int_malloc 3
[unknown] 3
"""

#include "security.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

UA_String policy_uri(security_policy policy) {
    static const char *const uris[POLICY_COUNT] = {
        "http://opcfoundation.org/UA/SecurityPolicy#None",
        "http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256",
        "http://opcfoundation.org/UA/SecurityPolicy#Aes128_Sha256_RsaOaep",
        "http://opcfoundation.org/UA/SecurityPolicy#Aes256_Sha256_RsaPss"};
    return UA_STRING((char *)uris[policy]);
}

UA_MessageSecurityMode message_security_mode(security_mode mode) {
    switch(mode) {
    case MODE_SIGN: return UA_MESSAGESECURITYMODE_SIGN;
    case MODE_SIGN_AND_ENCRYPT: return UA_MESSAGESECURITYMODE_SIGNANDENCRYPT;
    default: return UA_MESSAGESECURITYMODE_NONE;
    }
}

bool load_file(const char *path, UA_ByteString *out) {
    UA_ByteString_init(out);
    FILE *file = fopen(path, "rb");
    if(!file)
        return false;
    bool ok = fseek(file, 0, SEEK_END) == 0;
    long size = ok ? ftell(file) : -1;
    ok = size > 0 && fseek(file, 0, SEEK_SET) == 0 &&
         UA_ByteString_allocBuffer(out, (size_t)size) == UA_STATUSCODE_GOOD &&
         fread(out->data, 1, (size_t)size, file) == (size_t)size;
    fclose(file);
    if(!ok) {
        UA_ByteString_clear(out);
        if(!errno)
            errno = EIO;
    }
    return ok;
}

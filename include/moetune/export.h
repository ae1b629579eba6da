#pragma once
// Marks what libmoetune exports. The library is built with hidden visibility, so only these
// classes (and their exception types, which callers catch by type) are visible to its users.
#if defined(_WIN32)
#define MOETUNE_API
#else
#define MOETUNE_API __attribute__((visibility("default")))
#endif

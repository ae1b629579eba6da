# One place for compiler warnings, applied per target by moetune_warnings(target).
function(moetune_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
endfunction()

# What a vendor's wheel holds (`make wheel`, pyproject.toml): `cmake --install`
# lays it out as site-packages. The Python package, the autoload hook, and per
# vendor under torch_fl/vendors/<vendor>/: the backend library, the generated
# support matrix, the spec and build_info.json (what the library was built for;
# the autoload hook reads it before loading anything). Two vendors' wheels
# installed together share torch_fl/ and keep their own vendors/<vendor>/.
set(_vendor_dir torch_fl/vendors/${TORCH_FL_VENDOR})
set(_generated ${TORCH_FL_GENERATED_DIR}/${TORCH_FL_VENDOR})

file(READ ${_generated}/support_matrix.json _matrix)
string(JSON TORCH_FL_DEVICE GET "${_matrix}" device)
string(JSON TORCH_FL_SPEC_SHA256 GET "${_matrix}" spec_sha256)
configure_file(${CMAKE_CURRENT_LIST_DIR}/build_info.json.in ${CMAKE_BINARY_DIR}/build_info.json @ONLY)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/python/torch_fl DESTINATION .
        PATTERN __pycache__ EXCLUDE PATTERN vendors EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/runtime/python/torch_fl_autoload.py ${PROJECT_SOURCE_DIR}/runtime/python/torch_fl_wheels.py
        DESTINATION .)
install(TARGETS torch_fl_backend LIBRARY DESTINATION ${_vendor_dir})
install(FILES ${CMAKE_BINARY_DIR}/build_info.json
              ${_generated}/support_matrix.json ${_generated}/support_matrix.md ${_generated}/support_matrix.html
              ${PROJECT_SOURCE_DIR}/specs/${TORCH_FL_VENDOR}.yaml
        DESTINATION ${_vendor_dir})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/specs/common DESTINATION ${_vendor_dir})
# The files the vendor's spec includes beside specs/common/ (specs/<vendor>/, by op family).
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/specs/${TORCH_FL_VENDOR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/specs/${TORCH_FL_VENDOR} DESTINATION ${_vendor_dir})
endif()

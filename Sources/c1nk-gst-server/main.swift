import C1nkGst
print("todo")
